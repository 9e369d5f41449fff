"""``python -m referee.lab.train average``: the weighted mean of two models of one network."""

import json

import numpy as np
import pytest

from referee.hearing.classifier import MODEL_PATH, PhraseClassifier
from referee.lab.train.__main__ import main
from referee.lab.train.average import AverageError, average

MODELS = MODEL_PATH.parent


def _shifted(src, dst, by):
    """A copy of the model at ``src`` with every weight ``by`` more, as a fine-tune of it."""
    with np.load(src) as z:
        arrays = {k: z[k] if k == "meta" else z[k] + np.float32(by) for k in z.files}
    np.savez(dst, **arrays)


def test_the_mean_is_weighted_by_the_second_s_share_and_loads_as_a_classifier(tmp_path):
    first = MODELS / "phrases.npz"
    _shifted(first, tmp_path / "tuned.npz", 0.4)
    out = tmp_path / "mean.npz"
    assert main(["average", str(first), str(tmp_path / "tuned.npz"), "--weight", "0.25",
                 "--out", str(out)]) == 0
    with np.load(first) as a, np.load(out) as m:
        for k in a.files:
            if k != "meta":
                assert np.allclose(m[k], a[k] + 0.1, atol=1e-6), k
        meta = json.loads(str(m["meta"]))
        first_meta = json.loads(str(a["meta"]))
    assert meta["averaged"]["with"] == str(first) and meta["averaged"]["weight"] == 0.25
    assert meta["averaged"]["its_fits"][-1]["epochs"] == first_meta["epochs"]
    x = np.random.default_rng(0).normal(size=(80, 40)).astype(np.float32)
    assert PhraseClassifier.load(out).logits_of_features(x).shape == (
        len(PhraseClassifier.load(first).classes),)


def test_two_networks_or_a_weight_out_of_range_are_refused_by_name(tmp_path):
    out = tmp_path / "mean.npz"
    with pytest.raises(AverageError, match=r"phrases.npz and .*suits.npz: not one network"):
        average(MODELS / "phrases.npz", MODELS / "suits.npz", 0.5, out)
    with pytest.raises(AverageError, match="weight 1.5: must be from 0 to 1"):
        average(MODELS / "phrases.npz", MODELS / "phrases.npz", 1.5, out)
    (tmp_path / "junk.npz").write_text("not numpy")
    with pytest.raises(AverageError, match="junk.npz: not a model file"):
        average(MODELS / "phrases.npz", tmp_path / "junk.npz", 0.5, out)
    assert not out.exists()
