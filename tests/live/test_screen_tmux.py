"""The live view in a real terminal (tmux): one region redrawn in place, whatever the
referee prints or says meanwhile; nothing piles up on the screen."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def test_the_view_is_redrawn_in_place(pulse, tmp_path):
    session = f"referee-screen-{tmp_path.name}"[:40]
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in
                   {**pulse.client_env, "REFEREE_DATA": str(tmp_path)}.items())
    cmd = (f"cd {shlex.quote(str(tmp_path))} && env {env} PYTHONPATH={shlex.quote(sys.path[0])}:"
           f"{shlex.quote(str(__import__('pathlib').Path(__file__).resolve().parents[2]))} "
           f"{sys.executable} -m referee play stroop --players ann,bob --names ann,bob "
           f"--devices ann bob --speak-to text; sleep 30")
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "40", cmd)
    try:
        deadline = time.monotonic() + 60
        while "╭" not in _tmux("capture-pane", "-p", "-t", session) and time.monotonic() < deadline:
            time.sleep(0.3)
        time.sleep(0.5)
        first = _tmux("capture-pane", "-p", "-t", session)
        for card in ("3S", "QH", "7C", "9D", "KS", "2H", "5C", "JD"):
            _tmux("send-keys", "-t", session, card, "Enter")
            time.sleep(0.8)
        time.sleep(1.0)
        screen = _tmux("capture-pane", "-p", "-S", "-200", "-t", session)
        _tmux("send-keys", "-t", session, "pause", "Enter")
        time.sleep(1.5)
        paused = _tmux("capture-pane", "-p", "-t", session)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert "waiting for the dealer: name the card, or type it" in first, first
    assert screen.count("╭") == 1, screen
    assert "top card" in screen and "J♦" in screen, screen
    assert "paused — say 'referee resume'" in paused and paused.count("╭") == 1, paused
