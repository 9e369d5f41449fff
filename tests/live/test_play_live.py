"""End to end through the real audio server (issue 4): a short Stroop game played by
espeak-ng voices into PulseAudio null sinks (one mic per person), refereed by a
``referee play`` subprocess with the real PocketSphinx; its voice goes to the ``speaker``
sink and is recorded there. Then a crash (``kill -9``) and ``referee resume``.

What must hold whatever the recogniser does is asserted too: the journal's verdicts are
what ``referee replay`` of it gives, and what was printed live."""

from __future__ import annotations

import json
import time

import pytest

from referee.core.cards import Card

from live_game import (RATE, Referee, duration, journal_lines, mix_wav, replay_json,
                       speech_spans, voice_wav)

MICS = "dealer,ann,bob"
#: the players' mics: two devices fed by the channels of one sink (tests/helpers/pulse.py
#: ``split``), so that calls played as one file reach them exactly as timed in it
PLAYER_MICS = {"ann": "stroop_ann", "bob": "stroop_bob"}
DEVICES = ",".join(["dealer", *PLAYER_MICS.values()])


@pytest.fixture(scope="module")
def mics(pulse):
    if "stroop" not in pulse.sinks:
        pulse.add_split_sink("stroop", list(PLAYER_MICS.values()))
    return pulse


def play_args(*extra: str) -> list[str]:
    return ["play", "stroop", "--names", MICS, "--devices", DEVICES, "--json",
            "--speak-to", "speakers", "--engine", "pocketsphinx", *extra]


class Game:
    """Plays the people's lines into their mics, one round at a time."""

    def __init__(self, pulse, tmp_path, ref: Referee) -> None:
        self.pulse, self.tmp, self.ref = pulse, tmp_path, ref
        self.t0 = time.monotonic()
        self.typed: list[str] = []
        """Cards the dealer had to type: the recogniser missed the spoken deal."""
        self._deals = len(self._deals_journaled())

    def _deals_journaled(self) -> list[dict]:
        files = list(self.ref.data.rglob("*.jsonl"))
        return [json.loads(x) for f in files for x in f.read_text().splitlines()
                if '"type":"deal"' in x]

    def _journaled_deal(self, card: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            deals = self._deals_journaled()
            if len(deals) > self._deals and deals[-1]["card"] == card:
                self._deals = len(deals)
                return True
            time.sleep(0.05)
        return False

    def round(self, deal: str, calls: list[tuple[str, str, float]], n: int) -> dict:
        """The dealer names ``deal``; each (player, call, at) is said ``at`` seconds after
        the deal is journaled; waits for round object ``n`` (1-based). Should the
        recogniser miss the dealer's words, the dealer types the card instead (as a dealer
        at the table would), and ``typed`` says so."""
        self.pulse.play(voice_wav(self.tmp, "dealer", deal), "dealer")
        card = str(Card.find(deal))
        if not self._journaled_deal(card, 2.0):
            self.typed.append(card)
            self.ref.type(card)
            assert self._journaled_deal(card, 2.0), self.ref.stderr
        end = time.monotonic() - 0.5
        first = min(at for _, _, at in calls)
        players = list(PLAYER_MICS)
        parts = [(players.index(who), voice_wav(self.tmp, who, text), at - first)
                 for who, text, at in calls]
        wav = mix_wav(self.tmp / f"round{n}.wav", parts, len(players))
        time.sleep(max(0.0, end + first - time.monotonic()))
        self.pulse.play(wav, "stroop")
        return self.ref.wait_objects("round", n, 20)[n - 1]

    def race(self, first: tuple[str, str], second: tuple[str, str], margin: float = 0.4,
             at: float = 1.0) -> list[tuple[str, str, float]]:
        """Two overlapping calls whose *ends* are ``margin`` seconds apart, ``first``
        completing first (though it may begin later)."""
        d1 = duration(voice_wav(self.tmp, *first))
        d2 = duration(voice_wav(self.tmp, *second))
        t1 = at + max(0.0, d2 - d1)             # so that both start at or after ``at``
        return [(*first, t1), (*second, t1 + d1 + margin - d2)]


def start_referee(pulse, data, *args) -> tuple[Referee, object]:
    rec = pulse.record("speaker")
    ref = Referee(*args, data=data)
    ref.wait_err("referee: journal ", 60)
    time.sleep(0.8)          # the mics' first blocks
    return ref, rec


@pytest.mark.slow
def test_a_stroop_game_through_pulseaudio(mics, tmp_path):
    pulse = mics
    data = tmp_path / "data"
    ref, rec = start_referee(pulse, data, *play_args())
    try:
        g = Game(pulse, tmp_path, ref)
        # Round 1: 7D. bob names a court card (a miscall: he is out), ann a good card.
        r1 = g.round("seven of diamonds", [("bob", "queen of hearts", 0.8),
                                           ("ann", "two of clubs", 2.6)], 1)
        time.sleep(2.5)      # the verdict and the scores are spoken
        # Round 2: KD. A race: ann and bob both name a good card; bob begins first but
        # ann completes her call 0.4 s before his.
        r2 = g.round("king of diamonds",
                     g.race(("ann", "queen of clubs"), ("bob", "ace of clubs")), 2)
        time.sleep(2.5)
        # Round 3: 9H, bob alone.
        r3 = g.round("nine of hearts", [("bob", "two of clubs", 1.0)], 3)
        time.sleep(3.0)
        ref.type("end")
        final = ref.wait_objects("final", 1, 20)[0]
        assert ref.finish() == 0, ref.stderr
    finally:
        ref.kill()
        said = rec.stop()
        t_stop = time.monotonic()
    stderr = ref.stderr
    assert "Traceback" not in stderr, stderr

    # -- the verdicts --------------------------------------------------------------
    assert (r1["top"], r1["winner"], r1["call"]["said"]) == ("7D", "ann", "two of clubs"), stderr
    assert (r2["top"], r2["winner"], r2["call"]["said"]) == ("KD", "ann", "queen of clubs"), r2
    assert (r3["top"], r3["winner"]) == ("9H", "bob"), r3
    assert final["rounds"] == 3 and final["scores"]["ann"] > final["scores"]["bob"] > 0, final

    # -- the journal: every verdict printed live, reproduced by `referee replay` ----------
    path, lines = journal_lines(data)
    assert lines[0]["type"] == "game" and lines[0]["setup"]["channels"] == ["dealer", "ann", "bob"]
    assert [o["type"] for o in lines].count("final") == 1
    # round 1: bob's court card on 7D put him out; round 2: his call overlapped ann's
    # but completed 0.4 s after hers, so it came too late
    assert {"type": "out", "round": 1, "player": "bob"}.items() <= next(
        o for o in lines if o["type"] == "out").items()
    late = [o for o in lines if o["type"] == "judged" and o["round"] == 2 and o["player"] == "bob"]
    assert [o["outcome"] for o in late] == ["late"], lines
    ann2 = next(o for o in lines if o["type"] == "call" and o["said"] == "queen of clubs")
    assert late[0]["start"] < ann2["end"] < late[0]["end"], (ann2, late)
    assert 0.2 < late[0]["end"] - ann2["end"] < 0.6
    live = ref.objects()
    assert replay_json(path) == live
    assert [o for o in lines if o["type"] in ("round", "final")] == live

    # -- what the referee said, captured from its output sink -----------------------
    voice = said.mean(axis=1)
    spans = speech_spans(voice)
    assert spans, "nothing came out of the speaker sink"
    texts = [s for _, s in ref.announcements()]
    assert [s.split(" wins")[0] for s in texts if " wins one card" in s] == ["Ann", "Ann", "Bob"]
    assert texts[-1].startswith("Game over. Ann wins"), texts
    # speech after each round's verdict: the recording began before the referee started,
    # so its clock is a little ahead of the game's; look for speech in the seconds after
    # each round object arrived.
    t_rec0 = t_stop - len(voice) / RATE
    # about a second or more of speech per announcement (they are sentences)
    assert sum(b - a for a, b in spans) >= 1.0 * len(texts), (spans, texts)
    arrived = [t for t, line in ref.out if '"round"' in line or '"final"' in line]
    assert len(arrived) == 4
    for n in (1, 2, 3, 4):                  # each verdict, and the game's end, is heard
        t_obj = arrived[n - 1]
        rel = t_obj - t_rec0
        assert any(a <= rel + 3.0 and b >= rel - 0.5 for a, b in spans), (n, rel, spans)


@pytest.mark.slow
def test_kill_9_then_resume_loses_nothing(mics, tmp_path):
    pulse = mics
    data = tmp_path / "data"
    ref, rec = start_referee(pulse, data, *play_args())
    try:
        g = Game(pulse, tmp_path, ref)
        g.round("seven of diamonds", [("ann", "two of clubs", 1.0)], 1)
        g.round("king of diamonds", [("bob", "ace of clubs", 1.0)], 2)
        path, _ = journal_lines(data)
        # the second verdict is journaled (fsynced before it is printed): crash now
        assert sum('"type":"round"' in x for x in path.read_text().splitlines()) == 2
    finally:
        ref.kill()                                  # SIGKILL: no clean-up at all
        rec.stop()
    assert ref.proc.returncode == -9
    before = path.read_text()
    assert '"final"' not in before
    first = [o for o in ref.objects()]

    # `referee resume` finds the unfinished game, says where it stands and goes on; this
    # time the game is ended by the dealer typing "end" (Ctrl-C would leave it resumable)
    ref2, rec2 = start_referee(pulse, data, "resume", "--json", "--speak-to", "speakers",
                               "--engine", "pocketsphinx")
    try:
        assert f"journal {path}" in ref2.stderr
        ref2.wait_err("Resuming.", 10)
        assert "Ann has one, Bob has one" in ref2.stderr
        g = Game(pulse, tmp_path, ref2)
        r3 = g.round("nine of hearts", [("ann", "two of clubs", 1.0)], 1)
        time.sleep(2.0)
        ref2.type("end")                               # the game ends for good
        final = ref2.wait_objects("final", 1, 20)[0]
        assert ref2.finish() == 0, ref2.stderr
    finally:
        ref2.kill()
        rec2.stop()
    assert "Traceback" not in ref2.stderr, ref2.stderr
    assert (r3["round"], r3["top"], r3["winner"]) == (3, "9H", "ann"), ref2.stderr
    assert final == {"type": "final", "scores": {"ann": 2, "bob": 1}, "unclaimed": 0,
                     "rounds": 3}
    # the same journal, appended to: every line written before the crash is kept
    after = path.read_text()
    assert after.startswith(before)
    assert len(list(data.rglob("*.jsonl"))) == 1
    # times go on after the crash: the resumed game's events are later than the old ones
    _, lines = journal_lines(data)
    n_old = len(before.splitlines())
    old_t = max(o.get("at", o.get("end", 0)) for o in lines[:n_old])
    assert all(o.get("at", o.get("end", old_t)) >= old_t for o in lines[n_old:]), lines[n_old:]
    # every verdict journaled once: round 2, decided before the crash, is not decided again
    assert [o["round"] for o in lines if o["type"] == "round"] == [1, 2, 3]
    # replaying the whole journal gives the rounds of both runs and the final
    assert replay_json(path) == first + ref2.objects()
    # and the game is over: nothing left to resume
    r = Referee("resume", "--speak-to", "text", data=data)
    assert r.finish() == 2 and "no unfinished game" in r.stderr


def spoken(tmp_path, who: str, text: str) -> tuple[float, float]:
    """Where ``text`` in ``who``'s voice begins and ends in its WAV (seconds): the
    definition the referee times calls by (first and last 10 ms frame within 40 dB of the
    loudest, on the voice alone)."""
    from referee.audio.wav import read_pcm16
    from referee.hearing.timing import truth

    x, rate = read_pcm16(voice_wav(tmp_path, who, text))
    return truth(x[:, 0].astype(float), rate)


def ends_apart(tmp_path, first: tuple[str, str], second: tuple[str, str], gap: float,
               at: float = 1.0) -> list[tuple[str, str, float]]:
    """Two calls placed so that ``first``'s voice ends ``gap`` seconds before ``second``'s,
    the earlier of the two beginning ``at`` seconds in."""
    s1, e1 = spoken(tmp_path, *first)
    s2, e2 = spoken(tmp_path, *second)
    t1, t2 = 0.0, e1 + gap - e2           # file offsets, ends gap apart
    lead = min(t1 + s1, t2 + s2)
    return [(*first, at + t1 - lead), (*second, at + t2 - lead)]


@pytest.mark.slow
def test_close_races_and_a_bare_suit_through_pulseaudio(mics, tmp_path):
    """Issue 21, item 6: a race decided by 60 ms whose later finisher began first, calls
    finished within 20 ms (the one begun first wins), and a bare suit that puts its caller
    out, played through the audio server and judged live."""
    pulse = mics
    ref, rec = start_referee(pulse, tmp_path / "data", *play_args())
    try:
        g = Game(pulse, tmp_path, ref)
        # 5H: ann begins about 170 ms before bob, bob finishes 60 ms before her.
        race = ends_apart(tmp_path, ("bob", "two of clubs"), ("ann", "seven of spades"), 0.06)
        r1 = g.round("five of hearts", race, 1)
        time.sleep(2.5)
        # 9D: bob finishes 10 ms before ann (a tie on completion), ann began about 180 ms
        # sooner: ann wins.
        tie = ends_apart(tmp_path, ("bob", "ten of spades"), ("ann", "six of spades"), 0.01)
        r2 = g.round("nine of diamonds", tie, 2)
        time.sleep(2.5)
        # 4H: bob's bare "hearts" is a miscall (RULINGS Stroop 3): he is out, so his good
        # card after it does not count and ann's later one wins.
        r3 = g.round("four of hearts", [("bob", "hearts", 0.8), ("bob", "two of clubs", 2.2),
                                        ("ann", "eight of spades", 3.6)], 3)
        time.sleep(2.5)
        ref.type("end")
        ref.wait_objects("final", 1, 20)
        assert ref.finish() == 0, ref.stderr
    finally:
        ref.kill()
        rec.stop()
    assert "Traceback" not in ref.stderr, ref.stderr
    timed = {(c["player"], c["said"]): c for c in [r2["call"], *r2["rivals"]]}

    path, lines = journal_lines(tmp_path / "data")
    # the 60 ms race: bob's call completed first, though ann began first; hers came too late
    assert (r1["top"], r1["winner"], r1["call"]["said"]) == ("5H", "bob", "two of clubs"), r1
    late = [o for o in lines if o["type"] == "judged" and o["round"] == 1 and o["player"] == "ann"]
    assert [(o["said"], o["outcome"]) for o in late] == [("seven of spades", "late")], late
    assert late[0]["start"] < r1["call"]["start"] and 0.04 < late[0]["late_by"] < 0.08, late
    # the tie within 20 ms: ann, who began first
    assert (r2["top"], r2["winner"], r2["decided_by"]) == ("9D", "ann", "beginning"), r2
    assert abs(timed["ann", "six of spades"]["end"] - timed["bob", "ten of spades"]["end"]) < 0.04
    # the bare suit: a miscall that put bob out; ann's call wins
    assert (r3["top"], r3["winner"]) == ("4H", "ann"), r3
    bare = [o for o in lines if o["type"] == "judged" and o["round"] == 3 and o["player"] == "bob"]
    assert [o["said"] for o in bare][:1] == ["hearts"] and bare[0]["outcome"] == "miscall", bare
    assert any(o["type"] == "out" and o["round"] == 3 and o["player"] == "bob" for o in lines)
    assert replay_json(path) == ref.objects()       # the margins and the miscall, replayed
    # and the spoken verdicts say how close the races were
    texts = [s for _, s in ref.announcements()]
    assert any(s.startswith("Bob won by a hair: Ann was") and s.endswith("milliseconds later.")
               for s in texts), texts
    assert any(s.startswith("Ann") and "began" in s and "milliseconds sooner" in s
               for s in texts), texts
