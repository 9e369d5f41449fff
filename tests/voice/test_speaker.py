"""The referee's voice, with real pyttsx3/espeak-ng speech rendered during the test."""

from __future__ import annotations

import io
import sys
import threading
import time

import numpy as np
import pytest

from referee.voice import playback as sp
from referee.voice.echo import sounds_like
from referee.voice.speaker import MAX_FAILURES, Speaker
from referee.voice.voices import Audio, EspeakVoice, Pyttsx3Voice, VoiceError, read_wav


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x.astype(np.float64))))) if len(x) else 0.0


def wav_samples(path) -> tuple[np.ndarray, int]:
    a = read_wav(str(path))
    return np.frombuffer(a.samples, "<i2").astype(np.float32) / 32768.0, a.rate


def window(x, rate, t0, t1):
    return x[max(0, round(t0 * rate)): max(0, round(t1 * rate))]


class RaisingVoice:
    """Test double: a voice whose engine raises on every announcement."""

    def __init__(self):
        self.calls = 0
        self.closed = False

    def render(self, text):
        self.calls += 1
        raise RuntimeError("engine exploded")

    def close(self):
        self.closed = True


class HangingChildVoice(Pyttsx3Voice):
    """Test double: a Pyttsx3Voice whose child process never answers (as a
    hung ``runAndWait`` would not)."""

    def _command(self):
        return [sys.executable, "-c", "import time; time.sleep(60)"]


@pytest.fixture(scope="module")
def pyttsx3_voice():
    voice = Pyttsx3Voice(rate=170)
    yield voice
    voice.close()


def test_pyttsx3_voice_renders_speech_at_the_rate_set(pyttsx3_voice):
    a = pyttsx3_voice.render("the queen of hearts")
    x = np.frombuffer(a.samples, "<i2").astype(np.float32) / 32768
    assert a.rate == 22050
    assert 0.5 < a.duration < 3.0
    assert rms(x) > 0.02
    slow = Pyttsx3Voice(rate=90)
    try:
        assert slow.render("the queen of hearts").duration > 1.4 * a.duration
    finally:
        slow.close()


def test_wav_sink_places_each_announcement_at_its_time_with_silence_between(tmp_path, pyttsx3_voice):
    out = tmp_path / "said.wav"
    text = io.StringIO()
    s = Speaker(out, text=text, voice=pyttsx3_voice)
    s.say("Bob wins two cards", at=1.0)
    s.say("Ann is out this round", at=5.0)
    s.say("Bob, by a hair", at=9.5)
    s.wait()
    assert [r.start for r in s.history()] == [1.0, 5.0, 9.5]
    assert s.history()[-1].end is not None  # known, though an urgent one could still cut it
    assert s.talking(9.6).text == "Bob, by a hair" and s.talking(15.0) is None
    assert s.echo("bob", 9.6, 10.0) == s.history()[-1]  # as if played in the room
    assert s.echo("bob", 13.0, 13.5) is None  # over by then: a player saying it
    s.close(until=13.0)
    spoken = s.history()
    assert text.getvalue().splitlines() == [
        "referee: Bob wins two cards", "referee: Ann is out this round", "referee: Bob, by a hair"]
    x, rate = wav_samples(out)
    assert len(x) == 13.0 * rate
    ends = [r.end for r in spoken]
    assert all(r.start + 0.5 < r.end < r.start + 3.5 for r in spoken), spoken
    for r in spoken:
        assert rms(window(x, rate, r.start + 0.1, r.end - 0.2)) > 0.02, r  # speech
        assert rms(window(x, rate, r.start - 0.5, r.start)) == 0.0, r      # silence before
    for end, nxt in zip(ends, [r.start for r in spoken[1:]] + [13.0]):
        assert rms(window(x, rate, end, nxt)) == 0.0  # nothing between announcements
    assert s.problems == []


def test_wav_sink_urgent_cuts_short_a_long_announcement(tmp_path, pyttsx3_voice):
    out = tmp_path / "said.wav"
    with Speaker(out, text=io.StringIO(), voice=pyttsx3_voice) as s:
        s.say("The scores are: Ann twelve, Bob nine, Cy seven, Dee four", at=0.5)
        s.say("and Eve two", at=1.0)  # waits its turn
        s.say("Cy wins the race", urgent=True, at=1.5)
    long, waiting, urgent = s.history()
    assert long.start == 0.5 and long.end == 1.5 and long.interrupted
    assert urgent.start == 1.5 and not urgent.interrupted
    assert waiting.start == urgent.end  # the waiting one comes after the urgent one
    x, rate = wav_samples(out)
    assert rms(window(x, rate, 0.7, 1.45)) > 0.02
    assert rms(window(x, rate, urgent.start + 0.1, urgent.end - 0.2)) > 0.02
    assert len(x) == round(waiting.end * rate)


def test_wav_timeline_does_not_depend_on_processing_speed(tmp_path):
    """The same announcements give the same WAV whether the game is fed
    faster than real time or not (times come from ``at``, not the worker).
    espeak-ng's command line, because pyttsx3's renders of one text differ
    by a few samples from call to call."""
    outs = []
    for k, pause in enumerate([0.0, 0.3]):
        out = tmp_path / f"{k}.wav"
        with Speaker(out, text=io.StringIO(), voice=EspeakVoice()) as s:
            for i, at in enumerate([0.2, 0.9, 4.0]):
                s.say(f"announcement {i}", at=at, urgent=i == 1)
                threading.Event().wait(pause)
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_a_failing_engine_never_stops_the_announcements(tmp_path, capsys):
    voice = RaisingVoice()
    text = io.StringIO()
    with Speaker(tmp_path / "said.wav", text=text, voice=voice) as s:
        for i in range(MAX_FAILURES + 2):
            s.say(f"announcement {i}", at=float(i))
        s.wait()
        s.say("still here", at=10.0)
    assert text.getvalue().splitlines() == (
        [f"referee: announcement {i}" for i in range(MAX_FAILURES + 2)] + ["referee: still here"])
    assert voice.calls == MAX_FAILURES  # then given up on
    assert not voice.closed  # the caller's to close
    assert len(s.problems) == MAX_FAILURES and "printed only from now on" in s.problems[-1]
    assert "engine exploded" in capsys.readouterr().err
    assert all(r.start is None for r in s.history())
    x, _ = wav_samples(tmp_path / "said.wav")
    assert len(x) == 0


def test_a_hung_pyttsx3_child_is_killed_and_the_game_goes_on():
    voice = HangingChildVoice(timeout=0.5)
    with pytest.raises(VoiceError, match="did not answer"):
        voice.render("hello")
    assert voice._proc is None  # killed, not left hanging
    text = io.StringIO()
    with Speaker(None, text=text) as s:
        s.say("printed anyway")
    assert text.getvalue() == "referee: printed anyway\n"


def test_pyttsx3_voice_reports_a_voice_it_does_not_have():
    voice = Pyttsx3Voice(voice="no-such-voice-xx")
    try:
        with pytest.raises(VoiceError, match="did not start"):
            voice.render("hello")
    finally:
        voice.close()


def test_espeak_voice_renders_speech():
    a = EspeakVoice(rate=170).render("seven of clubs")
    assert a.duration > 0.4
    assert rms(np.frombuffer(a.samples, "<i2") / 32768) > 0.02


def test_live_with_no_audio_output_prints_and_carries_on(capsys):
    text = io.StringIO()
    clock = iter(range(100)).__next__
    player = sp.CommandPlayer(device="referee-no-such-device")
    with Speaker("speakers", text=text, voice=EspeakVoice(), player=player,
                 clock=lambda: float(clock())) as s:
        s.say("Bob wins")
        s.say("Ann wins")
        s.say("The end")
    assert text.getvalue().splitlines() == ["referee: Bob wins", "referee: Ann wins",
                                            "referee: The end"]
    assert len(s.problems) == 1 and "no audio output" in s.problems[0]
    assert all(r.start is None and r.end is None for r in s.history())
    assert "no audio output" in capsys.readouterr().err


def test_text_only_prints_in_order_with_urgent_first_only_when_waiting():
    text = io.StringIO()
    with Speaker(None, text=text) as s:
        s.say("one")
        s.say("two", urgent=True)
    assert text.getvalue() == "referee: one\nreferee: two\n"
    assert [r.asked for r in s.history()] == sorted(r.asked for r in s.history())
    with pytest.raises(RuntimeError):
        s.say("after close")


def test_speaker_refuses_an_output_it_cannot_write():
    with pytest.raises(ValueError, match="wav"):
        Speaker("said.mp3")


class SilentPlayer:
    """Test double for the audio output: takes ``holds[i]`` seconds of real
    time to 'play' the i-th audio (0.4 s once they run out; interruptible),
    then advances the fake clock by the audio's duration."""

    def __init__(self, clock, holds=()):
        self.clock = clock
        self.holds = list(holds)
        self.played = []

    def start(self):
        pass

    def play(self, audio, stop, started):
        started()
        self.played.append(audio.duration)
        if stop.wait(self.holds.pop(0) if self.holds else 0.4):
            return False
        self.clock.t += audio.duration
        return True

    def close(self):
        pass


class FakeClock:
    t = 0.0

    def __call__(self):
        return self.t


def test_live_speaker_records_start_and_end_and_recognises_its_own_words():
    clock = FakeClock()
    player = SilentPlayer(clock)
    with Speaker("speakers", text=io.StringIO(), voice=EspeakVoice(), clock=clock,
                 player=player) as s:
        s.say("Bob wins with the queen of hearts")
        s.wait()
        s.say("The score: Ann three, Bob 5")
    first, second = s.history()
    assert first.start == 0.0 and first.end == pytest.approx(player.played[0])
    assert second.start == first.end and second.end > second.start
    assert s.echo("queen of hearts", first.start + 0.5, first.start + 1.0) == first
    assert s.echo("queen of hearts", first.end + 2.0, first.end + 3.0) is None  # later: a player
    assert s.echo("bob five", second.start + 0.2, second.start + 0.8) == second
    assert s.echo("king of spades", first.start + 0.2, first.start + 0.8) is None
    assert s.talking(first.start + 0.1) == first
    assert s.talking(second.end + 1) is None


def test_live_urgent_interrupts_a_non_urgent_announcement_being_spoken():
    clock = FakeClock()
    player = SilentPlayer(clock, holds=[30.0])  # the scores play until interrupted
    with Speaker("speakers", text=io.StringIO(), voice=EspeakVoice(), clock=clock,
                 player=player) as s:
        s.say("The scores are: Ann twelve, Bob nine")
        for _ in range(1000):
            if s.talking() is not None:
                break
            threading.Event().wait(0.01)
        s.say("Bob wins", urgent=True)
    scores, verdict = s.history()
    assert scores.interrupted and not verdict.interrupted
    assert len(player.played) == 2


@pytest.mark.parametrize("said, announcement, expected", [
    ("queen of hearts", "Bob wins with the queen of hearts.", True),
    ("queen of spades", "Bob wins with the queen of hearts.", True),   # 2 of 3 words
    ("seven of clubs", "Bob wins with the queen of hearts.", False),
    ("score", "The score: Ann 3.", True),
    ("three", "The score: Ann 3.", True),
    ("goop", "Bob wins.", False),
    ("", "Bob wins.", False),
])
def test_sounds_like(said, announcement, expected):
    assert sounds_like(said, announcement) is expected


class MuteVoice:
    """Test double: a voice that renders silence (as pyttsx3 now and then
    writes an empty file)."""

    def render(self, text):
        return Audio(b"\0\0" * 8000, 16000)

    def close(self):
        pass


def test_a_voice_that_renders_silence_is_reported_and_the_text_printed(tmp_path):
    text = io.StringIO()
    with Speaker(tmp_path / "said.wav", text=text, voice=MuteVoice()) as s:
        s.say("Bob wins", at=1.0)
    assert text.getvalue() == "referee: Bob wins\n"
    assert s.problems and "no speech" in s.problems[0]
    assert s.history()[0].start is None


class QuitterPlayerCommand(sp.CommandPlayer):
    """Test double: a player command that exits at once with status 0
    without playing (``true``), as a broken player might."""

    def _command(self, program, path):
        return ["true"]


def test_a_player_that_exits_without_playing_is_no_audio_output():
    player = QuitterPlayerCommand()
    with pytest.raises(sp.PlaybackError, match="exited after"):
        player.play(EspeakVoice().render("Bob wins two cards"), threading.Event(), lambda: None)
    player.close()


class RealTimePlayer:
    """Test double for the audio output: 'plays' each audio for its real duration on the
    real clock (interruptible), as paplay would, without an audio server."""

    def __init__(self):
        self.played = []

    def start(self):
        pass

    def play(self, audio, stop, started):
        started()
        self.played.append(audio.duration)
        return not stop.wait(audio.duration)

    def close(self):
        pass


def wait_until(check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_a_verdict_asked_during_a_score_readout_starts_at_once_and_drops_the_stale_score(pyttsx3_voice):
    """The real pyttsx3 child renders; the player takes each audio's real duration."""
    player = RealTimePlayer()
    with Speaker("speakers", text=io.StringIO(), voice=pyttsx3_voice, player=player) as s:
        s.say("Bob wins one card.", urgent=True)
        s.say("Bob has one, Ann has zero, Cy has zero, Dee has zero.", droppable=True)
        wait_until(lambda: (s.talking() or s.history()[0]).text.startswith("Bob has"))
        time.sleep(0.3)                                   # the score is being read out
        s.say("Ann has one, Bob has one.", droppable=True)  # queued behind it: stale soon
        asked = s.clock()
        s.say("Ann wins one card.", urgent=True)
        s.say("Queen of hearts.", urgent=True)            # the next card is never dropped
    first, score, stale, verdict, card = s.history()
    assert score.interrupted and score.end - score.start < 1.0   # the whole takes over 3 s
    assert stale.dropped and stale.start is None
    assert verdict.start - asked < 0.3 and not verdict.interrupted
    assert card.start >= verdict.end and not card.interrupted and not card.dropped
    assert len(player.played) == 4


def test_a_verdict_asked_while_a_score_is_rendered_is_next_and_the_score_never_sounds(pyttsx3_voice):
    player = RealTimePlayer()
    with Speaker("speakers", text=io.StringIO(), voice=pyttsx3_voice, player=player) as s:
        s.say("Bob has one, Ann has zero.", droppable=True)
        s.say("Ann wins one card.", urgent=True)          # before the score's rendering is played
    score, verdict = s.history()
    assert verdict.start is not None and not verdict.interrupted
    assert score.start is None and (score.dropped or score.interrupted)
    assert player.played == [pytest.approx(verdict.end - verdict.start, abs=0.05)]


def test_wav_sink_drops_a_waiting_score_for_a_verdict(tmp_path, pyttsx3_voice):
    out = tmp_path / "said.wav"
    text = io.StringIO()
    with Speaker(out, text=text, voice=pyttsx3_voice) as s:
        s.say("Bob wins one card.", urgent=True, at=1.0)
        s.say("Bob has one, Ann has zero.", droppable=True, at=1.0)
        s.say("Ann is out this round.", at=1.0)        # not droppable: said in its turn
        s.say("Ann wins one card.", urgent=True, at=1.5)
    first, score, out_, verdict = s.history()
    assert verdict.start == first.end                  # straight after the first verdict
    assert score.dropped and score.start is None
    assert out_.start == verdict.end and not out_.dropped
    assert "referee: Bob has one, Ann has zero." in text.getvalue()   # printed, not voiced


def test_the_next_card_lets_a_score_that_has_begun_finish_but_a_verdict_cuts_it(pyttsx3_voice):
    player = RealTimePlayer()
    with Speaker("speakers", text=io.StringIO(), voice=pyttsx3_voice, player=player) as s:
        s.say("Bob has one, Ann has zero.", droppable=True)
        s.say("Ann has one, Bob has one.", droppable=True)
        wait_until(lambda: s.talking() is not None)
        s.say("Queen of hearts.", urgent=True, cuts_scores=False)
        s.wait()
        s.say("Bob has two, Ann has zero.", droppable=True)
        wait_until(lambda: s.talking() is not None)
        asked = s.clock()
        s.say("Ann wins one card.", urgent=True)
    score, stale, card, score2, verdict = s.history()
    assert not score.interrupted and card.start - score.end < 0.2       # said to the end, then the card
    assert stale.dropped
    assert score2.interrupted and verdict.start - asked < 0.3


def test_wav_sink_the_next_card_lets_a_score_finish(tmp_path, pyttsx3_voice):
    with Speaker(tmp_path / "said.wav", text=io.StringIO(), voice=pyttsx3_voice) as s:
        s.say("Bob has one, Ann has zero.", droppable=True, at=1.0)
        s.say("Queen of hearts.", urgent=True, cuts_scores=False, at=1.5)
        s.say("Bob has two, Ann has zero.", droppable=True, at=5.0)
        s.say("Ann wins one card.", urgent=True, at=5.5)
    score, card, score2, verdict = s.history()
    assert not score.interrupted and card.start == score.end
    assert score2.interrupted and score2.end == verdict.start == 5.5
