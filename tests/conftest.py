"""What every test folder shares: the helpers' folder (``tests/helpers``) on the path, so a
test imports a helper by its name (``from speech import corpus``); the session's private
PulseAudio server; and the ``live`` marker on every test that uses it."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "helpers"))

from pulse import PulseServer, serving  # noqa: E402

#: The session's test sinks: see tests/helpers/pulse.py.
PULSE_SINKS = [("mic1", 1), ("table3", 3), ("dealer", 1), ("ann", 1), ("bob", 1),
               ("speaker", 2)]


@pytest.fixture(scope="session")
def pulse(tmp_path_factory):
    """A running private PulseAudio server with the null sinks of ``PULSE_SINKS``
    (see tests/helpers/pulse.py); ``PULSE_SERVER`` and ``ALSA_CONFIG_PATH`` are set in
    ``os.environ`` while it runs."""
    server = PulseServer(tmp_path_factory.mktemp("pulse"))
    with serving(server, PULSE_SINKS, default_sink="speaker", default_source="mic1.monitor"):
        yield server


def pytest_collection_modifyitems(config, items):
    """Every test that uses the real audio server is marked ``live`` (``-m "not live"`` skips
    them while working on the core). Under ``-n 2 --dist loadgroup`` the live tests run one
    after another on one worker, so two real-time games never share the CPU, while the
    other worker takes the rest of the suite."""
    for item in items:
        if "pulse" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.live)
        if item.get_closest_marker("live") is not None:
            item.add_marker(pytest.mark.xdist_group("live"))
