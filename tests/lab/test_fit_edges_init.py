"""``fit-edges --init``: a fine-tune starts from the shipped edge network's weights."""

import numpy as np
import pytest

from referee.hearing.edge_net import MODEL_PATH
from referee.lab.train.fit_edges import init_params, start_from


def test_it_starts_from_the_shipped_network_and_refuses_another_kind():
    with np.load(MODEL_PATH) as z:
        inputs = z["w0"].shape[1]
        shipped = {k: z[k] for k in z.files if k != "meta"}
    fresh = init_params(np.random.default_rng(0), inputs)
    params, meta = start_from(MODEL_PATH, fresh)
    assert meta["kind"] == "edges" and params.keys() == shipped.keys()
    assert all(np.array_equal(params[k], shipped[k]) for k in shipped)
    with pytest.raises(SystemExit, match="phrases.npz: not an edge network"):
        start_from(MODEL_PATH.parent / "phrases.npz", fresh)
    with pytest.raises(SystemExit, match="edges.npz: not an edge network of this shape"):
        start_from(MODEL_PATH, init_params(np.random.default_rng(0), inputs + 1))
