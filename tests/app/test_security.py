"""What the referee never does: open a network listener, hand text to a shell, load a
pickle. Checked in the code itself (every call, by its syntax tree) and, for listeners, in a
running referee."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from referee.audio.wav import write_wav

PACKAGE = Path(__file__).resolve().parents[2] / "referee"


def _calls():
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                yield path.relative_to(PACKAGE.parent), node


def _name(f: ast.expr) -> str:
    return ast.unparse(f)


def test_no_text_goes_to_a_shell():
    bad = []
    for path, call in _calls():
        name = _name(call.func)
        if name in ("os.system", "os.popen") or name.startswith("os.exec") and "shell" in name:
            bad.append(f"{path}:{call.lineno} {name}")
        for kw in call.keywords:
            if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                bad.append(f"{path}:{call.lineno} {name}(shell=...)")
    assert bad == []


def test_no_pickle_is_ever_loaded():
    bad = []
    for path, call in _calls():
        name = _name(call.func)
        if name.split(".")[0] in ("pickle", "cPickle", "dill", "joblib", "torch"):
            bad.append(f"{path}:{call.lineno} {name}")
        if name in ("np.load", "numpy.load"):
            kw = {k.arg: k.value for k in call.keywords}
            v = kw.get("allow_pickle")
            if not (isinstance(v, ast.Constant) and v.value is False):
                bad.append(f"{path}:{call.lineno} np.load without allow_pickle=False")
    assert bad == []
    imports = [f"{p.relative_to(PACKAGE.parent)}" for p in PACKAGE.rglob("*.py")
               if any(isinstance(n, (ast.Import, ast.ImportFrom)) and any(
                   (a.name if isinstance(n, ast.Import) else (n.module or "")).split(".")[0]
                   == "pickle" for a in n.names) for n in ast.walk(ast.parse(p.read_text())))]
    assert imports == []


def _listening_sockets(pid: int) -> list[str]:
    """The TCP/UDP/UNIX sockets ``pid`` listens on (from /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table, listen_state in (("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[9] in inodes and cols[3] == listen_state:
                found.append(f"{table} {cols[1]}")
    for line in Path(f"/proc/{pid}/net/unix").read_text().splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 7 and cols[6] in inodes and cols[5] == "01" and cols[3] == "00010000":
            found.append(f"unix {cols[-1] if len(cols) > 7 else ''}")
    return found


def test_a_running_referee_listens_on_no_socket(tmp_path):
    # a recording long enough to look at the process while it referees
    write_wav(tmp_path / "quiet.wav", np.zeros((16000 * 600, 2), np.int16), 16000)
    env = {**os.environ, "REFEREE_DATA": str(tmp_path), "PYTHONPATH": str(PACKAGE.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "referee", "play", "stroop", "--players",
                             "ann,bob", "--audio", str(tmp_path / "quiet.wav"), "--speak-to",
                             str(tmp_path / "said.wav")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        seen = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if list((tmp_path / "games").glob("*.jsonl")):   # refereeing by now
                seen = _listening_sockets(proc.pid)
                break
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait()
    assert seen == [], seen


def test_the_socket_check_sees_a_listener():
    proc = subprocess.Popen([sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        found = []
        deadline = time.monotonic() + 20
        while not found and time.monotonic() < deadline:
            time.sleep(0.2)
            found = _listening_sockets(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert any(f.startswith("tcp") for f in found), found
