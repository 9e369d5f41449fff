"""Watching microphones by identity on a PulseAudio (or PipeWire-Pulse) server: which
source each of this process's capture streams reads, as the server reports it (``pactl``),
and a poke whenever a source or capture stream changes (``pactl subscribe``).

Why identity and not whether audio flows: when a source goes away (a USB mic unplugged,
its module unloaded) the server moves the streams that read it to the default source, so a
lost mic does not go quiet, it becomes a copy of another mic. And when the server itself
stops, the streams stop with it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Snapshot:
    """What the server says at one moment."""

    sources: dict[int, str]
    """Every source: index -> name."""
    outputs: dict[int, int]
    """This process's capture streams (source outputs): index -> the index of the source read."""

    def source_of(self, output: int) -> str | None:
        """The name of the source ``output`` reads; None if the stream is gone."""
        if output not in self.outputs:
            return None
        return self.sources.get(self.outputs[output], "")


class PulseWatch:
    """Asks the server with ``pactl`` (the environment's ``PULSE_SERVER`` picks it).

    ``pid``: whose capture streams count as ours (default: this process).
    """

    def __init__(self, pactl: str = "pactl", pid: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.pactl = pactl
        self.pid = os.getpid() if pid is None else pid
        self.env = env
        self._closed = threading.Event()
        self._proc: subprocess.Popen | None = None

    @classmethod
    def find(cls) -> "PulseWatch | None":
        """A watch on the server this process's audio goes through, or None when there is
        no ``pactl`` or no server answers (plain ALSA: devices are watched by their flow)."""
        if shutil.which("pactl") is None:
            return None
        watch = cls()
        return watch if watch.snapshot() is not None else None

    def _ask(self, *args: str) -> str | None:
        try:
            r = subprocess.run([self.pactl, *args], capture_output=True, text=True,
                               timeout=5, env=self.env, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return r.stdout if r.returncode == 0 else None

    def snapshot(self) -> Snapshot | None:
        """The sources and our capture streams now; None when the server does not answer."""
        src = self._ask("--format=json", "list", "sources", "short")
        out = self._ask("--format=json", "list", "source-outputs")
        if src is None or out is None:
            return None
        try:
            sources = {int(s["index"]): str(s["name"]) for s in json.loads(src)}
            outputs = {int(o["index"]): int(o["source"]) for o in json.loads(out)
                       if str(o.get("properties", {}).get("application.process.id")) == str(self.pid)}
        except (ValueError, KeyError, TypeError):
            return None
        return Snapshot(sources, outputs)

    def move(self, output: int, source: str) -> bool:
        """Move our capture stream ``output`` to ``source``; True if the server did."""
        return self._ask("move-source-output", str(output), source) is not None

    def subscribe(self, poke: Callable[[], None]) -> None:
        """Call ``poke()`` (from a thread of its own) whenever a source or capture stream
        appears, changes or goes, and whenever the server goes away or comes back, until
        :meth:`close`."""
        threading.Thread(target=self._follow, args=(poke,), name="referee-pulse-watch",
                         daemon=True).start()

    def _follow(self, poke: Callable[[], None]) -> None:
        while not self._closed.is_set():
            try:
                self._proc = subprocess.Popen(
                    [self.pactl, "subscribe"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                    stdin=subprocess.DEVNULL, text=True, env=self.env,
                    preexec_fn=_die_with_parent)
            except OSError:
                return
            poke()      # (re)connected: what changed while it was not listening is looked at
            for line in self._proc.stdout:
                if " source" in line or " server" in line:
                    poke()
            self._proc.wait()
            self._proc.stdout.close()
            poke()      # the server went away
            self._closed.wait(0.5)

    def close(self) -> None:
        self._closed.set()
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(2)
            except subprocess.TimeoutExpired:
                proc.kill()


def _die_with_parent() -> None:
    """In the ``pactl subscribe`` child: end when the thread that started it ends, as when
    the referee is killed with SIGKILL (Linux's PR_SET_PDEATHSIG). Left running, it kept a
    connection to the server, which takes 64: 50 live kills filled it (docs/reliability.md)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))   # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
