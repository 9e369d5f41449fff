"""Every sentence the referee can say: spoken for real by espeak-ng, and listed
in docs/sentences.md exactly as the templates make them."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from referee.core.announce import SAMPLES, TEMPLATES, sentence, sentence_list
from speech import load, synth

DOC = Path(__file__).resolve().parents[2] / "docs" / "sentences.md"


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_every_template_is_spoken(name, tmp_path):
    text = sentence(name, **SAMPLES)
    x = load(synth(text, tmp_path / "s.wav"))
    frames = x[: len(x) // 160 * 160].reshape(-1, 160)            # 10 ms frames at 16 kHz
    rms = np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1))
    voiced = np.count_nonzero(rms > 0.02) * 0.01                     # seconds of speech
    words = len(re.findall(r"[A-Za-z']+", text))
    # espeak-ng speaks about 175 words a minute (0.34 s a word): allow a wide band.
    assert 0.12 * words <= voiced <= 1.0 * words, (text, voiced, words)


def test_every_template_has_sample_fields():
    for name, template in TEMPLATES.items():
        fields = set(re.findall(r"{(\w+)}", template))
        assert fields <= set(SAMPLES), name
        assert "{" not in sentence(name, **SAMPLES)


def test_the_sentence_list_in_the_docs_is_the_generated_one():
    assert DOC.read_text(encoding="utf-8") == sentence_list(), \
        "docs/sentences.md drifted: python -m referee.core.announce --sentences > docs/sentences.md"


def test_the_command_prints_the_list():
    done = subprocess.run([sys.executable, "-m", "referee.core.announce", "--sentences"],
                          capture_output=True, text=True, check=True)
    assert done.stdout == sentence_list()
    assert len(done.stdout.splitlines()) == 8 + len(TEMPLATES)
