"""A private PulseAudio server with null sinks, standing in for microphones and a
speaker in end-to-end tests. The machine has no sound card.

Use the session fixture ``pulse`` from ``tests/conftest.py``; it starts one server for the
whole test session, **before** anything imports ``sounddevice`` (PortAudio lists its
devices once, at import: a server or sink added later is invisible until
``PulseServer.refresh_sounddevice()``). Do not import sounddevice at the top of a test
module; import it inside the test, or let ``referee.audio.mic`` import it lazily.

Each sink is a virtual mic or speaker. Sound played into a sink comes out of its monitor
source, which sounddevice reads as an ALSA device named like the sink (``mic1``, ``table3``,
``dealer``, ...). The session's sinks (all at 16 kHz)::

    mic1     1 channel    one mic                    ALSA device "mic1"
    table3   3 channels   one 3-channel mic device   ALSA device "table3"
                          (channel 0 dealer, 1 ann, 2 bob by convention)
    dealer, ann, bob      1 channel each: three separate mic devices ("dealer", "ann", "bob")
    speaker  2 channels   the referee's voice output: the default sink, so pyttsx3 /
                          aplay / paplay without --device play here; ``pulse.record('speaker')``

The ALSA device ``pulse`` (and ``default``) reads the default source, ``mic1.monitor``.

Every client of the server needs ``PULSE_SERVER=unix:<socket>`` and the ALSA config that
names the devices: the fixture puts both into ``os.environ`` (``PULSE_SERVER``,
``ALSA_CONFIG_PATH``), so subprocesses (``referee listen``, ``referee play``) inherit them;
``pulse.env`` holds the same for an explicit ``env=``.

Typical use::

    def test_something(pulse, tmp_path):
        import sounddevice as sd                       # after the server started
        wav = pulse.say("queen of hearts", tmp_path / "q.wav")   # espeak-ng, 16 kHz mono
        rec = pulse.record("speaker")                  # start capturing the referee's voice
        with MicrophoneSource(sd, devices=["table3"], players=[...]) as src:
            pulse.play(wav, "table3", channel=1)       # only ann's channel hears it
            ...
        audio = rec.stop()                             # float32 (frames, channels), 16 kHz

``play(wav, sink, channel=None, wait=True)`` plays a WAV into a sink (``paplay``); with
``channel=k`` a mono file goes into channel k of a multi-channel sink only (the other
channels get silence); ``wait=False`` returns the running ``Popen``. ``record(sink)`` starts
a ``parec`` on the sink's monitor and returns a ``Recording`` whose ``stop()`` returns the
samples. ``add_sink(name, channels)`` makes another sink (and ALSA device) at run time;
``add_split_sink(name, [dev1, dev2, ...])`` makes one whose channel k is the mono device
dev<k+1> (``split(sink, {dev: k})`` does it for a sink there already): separate microphones
fed, to the sample, by one file. ``unplug(dev)`` and ``plug(dev)`` take such a mic away and
bring it back; ``crash()`` and ``restart()`` kill the server and start it again.

The recipe (what works on these machines): ``pulseaudio --daemonize=no -n -F minimal.pa
--exit-idle-time=-1 --disallow-exit --use-pid-file=no`` as root, stdin from /dev/null, log to
``<workdir>/pulseaudio.log``; ``minimal.pa`` loads ``module-native-protocol-unix`` on a
private socket with ``auth-anonymous=1`` and one ``module-null-sink`` per sink. A keep-alive
``parec`` reads every monitor (else a new stream's first block arrives 0.5-1.7 s late), a
``pacat`` plays silence into every sink (an idle null sink renders nothing, so without it a
monitor gives no samples between sounds and a mic's sample clock would stand still), and
the server is given ~2 s after the sinks load. A sink's channel map is the one the ALSA
``pulse`` plugin asks for with that channel count, so channel k of the sink is channel k of
the sounddevice stream, with no remixing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.audio.wav import read_pcm16, read_wav, resample, write_wav

#: The channel maps the ALSA pulse plugin uses for 1..8 channels (ALSA order, then aux).
_ALSA_MAPS = {
    1: ["mono"],
    2: ["front-left", "front-right"],
    4: ["front-left", "front-right", "rear-left", "rear-right"],
    5: ["front-left", "front-right", "rear-left", "rear-right", "front-center"],
    6: ["front-left", "front-right", "rear-left", "rear-right", "front-center", "lfe"],
    8: ["front-left", "front-right", "rear-left", "rear-right", "front-center", "lfe",
        "side-left", "side-right"],
}


def alsa_channel_map(channels: int) -> list[str]:
    """The PulseAudio channel map the ALSA ``pulse`` plugin gives an n-channel stream."""
    if channels in _ALSA_MAPS:
        return list(_ALSA_MAPS[channels])
    base = max(k for k in _ALSA_MAPS if k < channels)
    return _ALSA_MAPS[base] + [f"aux{i}" for i in range(channels - base)]


class PulseError(RuntimeError):
    """The test audio server could not start or do what was asked; the message says why."""


@dataclass
class Sink:
    name: str
    channels: int
    rate: int
    channel_map: list[str]

    @property
    def monitor(self) -> str:
        """The PulseAudio source that carries what is played into the sink."""
        return f"{self.name}.monitor"

    @property
    def alsa_device(self) -> str:
        """The sounddevice/ALSA device name that records this sink's monitor."""
        return self.name


class Recording:
    """A ``parec`` capturing a sink's monitor until ``stop()``."""

    def __init__(self, server: "PulseServer", sink: Sink, path: Path) -> None:
        self.sink, self.path = sink, path
        self._file = open(path, "wb")
        self._proc = subprocess.Popen(
            ["parec", f"--device={sink.monitor}", "--raw", "--format=s16le",
             f"--rate={sink.rate}", f"--channels={sink.channels}",
             f"--channel-map={','.join(sink.channel_map)}", "--latency-msec=20"],
            stdin=subprocess.DEVNULL, stdout=self._file, stderr=subprocess.DEVNULL,
            env=server.env)

    def stop(self) -> np.ndarray:
        """Stop capturing; the samples as float32 shaped (frames, channels)."""
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGINT)
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._file.close()
        raw = self.path.read_bytes()
        n = len(raw) // (2 * self.sink.channels)
        x = np.frombuffer(raw[: n * 2 * self.sink.channels], "<i2")
        return x.reshape(n, self.sink.channels).astype(np.float32) / 32768.0


class PulseServer:
    """A private PulseAudio server; see the module docstring."""

    def __init__(self, workdir: str | os.PathLike | None = None) -> None:
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="referee-pulse-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.socket = self.workdir / "native"
        self.asoundrc = self.workdir / "asoundrc"
        self.log = self.workdir / "pulseaudio.log"
        self.sinks: dict[str, Sink] = {}
        self._proc: subprocess.Popen | None = None
        self._keepalive: dict[str, subprocess.Popen] = {}
        self.split_sources: dict[str, tuple[str, int]] = {}
        """Mono sources made of one channel of a sink: name -> (sink, channel)."""
        self._count = 0

    # -- environment ----------------------------------------------------------
    @property
    def env(self) -> dict[str, str]:
        """The environment a client process needs (os.environ plus the server's)."""
        e = dict(os.environ)
        e.update(self.client_env)
        return e

    @property
    def client_env(self) -> dict[str, str]:
        """Only the variables that point clients at this server and its ALSA devices."""
        return {
            "PULSE_SERVER": f"unix:{self.socket}",
            "ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{self.asoundrc}",
        }

    # -- life cycle -----------------------------------------------------------
    def start(self, sinks: list[tuple[str, int]] = (("mic1", 1),), rate: int = 16000,
              default_sink: str | None = None, default_source: str | None = None) -> None:
        """Start the server with these ``(name, channels)`` null sinks, and wait until
        it is ready."""
        self._started = (list(sinks), rate, default_sink, default_source)
        for tool in ("pulseaudio", "pactl", "paplay", "parec"):
            if shutil.which(tool) is None:
                raise PulseError(f"{tool} is not installed (apt pulseaudio pulseaudio-utils)")
        lines = [f"load-module module-native-protocol-unix socket={self.socket} auth-anonymous=1"]
        for name, channels in sinks:
            sink = self._sink(name, channels, rate)
            lines.append(self._load_line(sink))
        if default_sink:
            lines.append(f"set-default-sink {default_sink}")
        src = default_source or (f"{sinks[0][0]}.monitor" if sinks else None)
        if src:
            lines.append(f"set-default-source {src}")
        pa = self.workdir / "minimal.pa"
        pa.write_text("\n".join(lines) + "\n")
        self._write_asoundrc()
        env = dict(os.environ, HOME=str(self.workdir), XDG_RUNTIME_DIR=str(self.workdir),
                   XDG_CONFIG_HOME=str(self.workdir / "config"))
        env.pop("PULSE_SERVER", None)
        with open(self.log, "wb") as log:
            self._proc = subprocess.Popen(
                ["pulseaudio", "--daemonize=no", "-n", "-F", str(pa), "--exit-idle-time=-1",
                 "--disallow-exit", "--use-pid-file=no", "--log-target=stderr"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                start_new_session=True)
        deadline = time.monotonic() + 15
        while True:
            if self._proc.poll() is not None:
                raise PulseError(f"pulseaudio exited ({self._proc.returncode}); "
                                 f"log:\n{self.log.read_text(errors='replace')[-2000:]}")
            if self.socket.exists() and self._pactl("info", check=False).returncode == 0:
                break
            if time.monotonic() > deadline:
                self.stop()
                raise PulseError(f"pulseaudio did not come up; see {self.log}")
            time.sleep(0.1)
        for sink in self.sinks.values():
            self._start_keepalive(sink)
        time.sleep(2.0)  # the sinks settle; the first blocks otherwise arrive late

    def stop(self) -> None:
        for p in self._keepalive.values():
            if p.poll() is None:
                p.terminate()
        for p in self._keepalive.values():
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        self._keepalive.clear()
        if self._proc and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None

    def crash(self) -> None:
        """Kill the server with SIGKILL, as a crash: every stream on it ends."""
        self._proc.kill()
        self._proc.wait()
        self._proc = None
        self.stop()         # its keep-alive players and readers

    def restart(self) -> None:
        """Start the server again after :meth:`crash`, with the same sinks and split
        sources (at the same socket, so clients that reconnect find it)."""
        _, rate, default_sink, default_source = self._started
        sinks = [(s.name, s.channels) for s in self.sinks.values()]   # those added later too
        splits = dict(self.split_sources)
        self.sinks, self.split_sources = {}, {}
        self.start(sinks, rate, default_sink, default_source)
        for sink in dict.fromkeys(v[0] for v in splits.values()):
            self.split(sink, {src: k for src, (s, k) in splits.items() if s == sink})

    def unplug(self, source: str) -> None:
        """Unload a split source (``split``), as a mic unplugged: the server moves the
        streams that read it to the default source."""
        mods = self._pactl("list", "modules", "short").stdout.splitlines()
        ids = [m.split()[0] for m in mods if f"source_name={source} " in m + " "]
        if len(ids) != 1:
            raise PulseError(f"no single module for source {source}: {ids}")
        self._pactl("unload-module", ids[0])
        reader = self._keepalive.pop(source, None)
        if reader is not None:
            reader.kill()
            reader.wait()

    def plug(self, source: str) -> None:
        """Load an unplugged split source again."""
        sink, k = self.split_sources.pop(source)
        self.split(sink, {source: k})

    def __enter__(self) -> "PulseServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- sinks ----------------------------------------------------------------
    def add_sink(self, name: str, channels: int = 1, rate: int = 16000) -> Sink:
        """Load another null sink (and its ALSA device) into the running server. A process
        that imported sounddevice already must call ``refresh_sounddevice()`` to see it."""
        sink = self._sink(name, channels, rate)
        args = self._load_line(sink).split()[1:]
        self._pactl("load-module", *args)
        self._write_asoundrc()
        self._start_keepalive(sink)
        time.sleep(2.0)
        return sink

    def add_split_sink(self, name: str, sources: list[str], rate: int = 16000) -> Sink:
        """Load a null sink with one channel per name in ``sources``, split into mono
        devices (``split``): channel k of the sink is device ``sources[k]``."""
        sink = self.add_sink(name, len(sources), rate)
        self.split(name, {src: k for k, src in enumerate(sources)})
        return sink

    def split(self, sink: str, sources: dict[str, int]) -> None:
        """Make, for each ``name: k`` of ``sources``, a mono source (and ALSA device) of
        that name carrying channel k of ``sink`` only. Each such device is a microphone of
        its own (its own PortAudio stream), yet one file played into the sink reaches them
        all on one clock: what is in channel k of the file at time t is on that device at
        time t, to the sample, however late the player starts."""
        s = self.sinks[sink]
        for src, k in sources.items():
            self._pactl("load-module", "module-remap-source", f"source_name={src}",
                        f"master={s.monitor}", "channels=1",
                        f"master_channel_map={s.channel_map[k]}", "channel_map=mono",
                        "remix=no")
            self.split_sources[src] = (sink, k)
        self._write_asoundrc()
        for src in sources:  # a reader on each, as on every monitor (see _start_keepalive)
            self._keepalive[src] = self._reader(src)
        time.sleep(2.0)

    @staticmethod
    def refresh_sounddevice() -> None:
        """Make an imported sounddevice list devices again (PortAudio caches them)."""
        import sounddevice as sd

        sd._terminate()
        sd._initialize()

    def _sink(self, name: str, channels: int, rate: int) -> Sink:
        if name in self.sinks:
            raise PulseError(f"sink {name!r} exists already")
        sink = Sink(name, channels, rate, alsa_channel_map(channels))
        self.sinks[name] = sink
        return sink

    @staticmethod
    def _load_line(sink: Sink) -> str:
        return (f"load-module module-null-sink sink_name={sink.name} rate={sink.rate} "
                f"channels={sink.channels} channel_map={','.join(sink.channel_map)}")

    def _write_asoundrc(self) -> None:
        lines = []
        for s in self.sinks.values():
            lines.append(f'pcm.{s.alsa_device} {{ type pulse; device "{s.monitor}"; '
                         f'hint {{ show on; description "test mic {s.name}" }} }}')
        for src, (sink, k) in self.split_sources.items():
            lines.append(f'pcm.{src} {{ type pulse; device "{src}"; '
                         f'hint {{ show on; description "test mic {src}: {sink} {k}" }} }}')
        tmp = self.asoundrc.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(self.asoundrc)

    def _reader(self, source: str) -> subprocess.Popen:
        """A ``parec`` reading ``source`` and throwing the samples away."""
        return subprocess.Popen(
            ["parec", f"--device={source}", "--raw", "--fix-format", "--fix-rate",
             "--fix-channels", "--latency-msec=20"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=self.env)

    def _start_keepalive(self, sink: Sink) -> None:
        # A reader on the monitor, so a new stream's first block is not late ...
        self._keepalive[sink.name] = self._reader(sink.monitor)
        # ... and silence played into the sink, so that it runs like a real microphone:
        # an idle null sink renders nothing, and its monitor then gives no samples at all
        # (the mic's clock would stand still between sounds).
        self._keepalive[sink.name + "/silence"] = subprocess.Popen(
            ["pacat", "--playback", f"--device={sink.name}", "--raw", "--format=s16le",
             f"--rate={sink.rate}", f"--channels={sink.channels}",
             f"--channel-map={','.join(sink.channel_map)}", "--client-name=silence"],
            stdin=open("/dev/zero", "rb"), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=self.env)

    def _pactl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run(["pactl", *args], env=self.env, capture_output=True, text=True,
                           timeout=10)
        if check and r.returncode != 0:
            raise PulseError(f"pactl {' '.join(args)} failed: {r.stderr.strip()}")
        return r

    # -- sound in and out -----------------------------------------------------
    def play(self, wav: str | os.PathLike, sink: str, channel: int | None = None,
             wait: bool = True) -> subprocess.Popen | None:
        """Play a WAV file into ``sink``. With ``channel=k`` the (mono) file is put into
        channel k of the sink only. ``wait=False`` returns the running paplay."""
        s = self.sinks[sink]
        path = Path(wav)
        if channel is not None:
            if not 0 <= channel < s.channels:
                raise PulseError(f"sink {sink} has no channel {channel}")
            path = self._spread(path, s, channel)
        cmd = ["paplay", f"--device={sink}", str(path)]
        if read_pcm16(path)[0].shape[1] == s.channels:  # channel k of the file -> channel k
            cmd.insert(2, f"--channel-map={','.join(s.channel_map)}")
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=self.env)
        if not wait:
            return proc
        _, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            raise PulseError(f"paplay {path} into {sink} failed: {err.decode(errors='replace')}")
        return None

    def record(self, sink: str) -> Recording:
        """Start capturing what is played into ``sink``; ``.stop()`` returns it."""
        self._count += 1
        return Recording(self, self.sinks[sink], self.workdir / f"rec{self._count}.raw")

    def say(self, text: str, path: str | os.PathLike, voice: str = "en-us",
            speed: int = 150, pitch: int = 50, rate: int = 16000,
            lead_in: float = 0.0, tail: float = 0.0) -> Path:
        """Synthesise ``text`` with espeak-ng into a mono WAV at ``rate`` (with optional
        silence before and after, seconds). Returns the path."""
        return espeak(text, path, voice=voice, speed=speed, pitch=pitch, rate=rate,
                      lead_in=lead_in, tail=tail)

    def _spread(self, path: Path, sink: Sink, channel: int) -> Path:
        x, rate = read_pcm16(path)
        if x.shape[1] != 1:
            raise PulseError(f"{path}: channel= needs a mono file, not {x.shape[1]} channels")
        out = np.zeros((x.shape[0], sink.channels), np.int16)
        out[:, channel] = x[:, 0]
        self._count += 1
        dst = self.workdir / f"spread{self._count}.wav"
        write_wav(dst, out, rate)
        return dst


@contextlib.contextmanager
def serving(server: PulseServer, sinks: list[tuple[str, int]], **start: str):
    """``server`` started with ``sinks`` (``start``: default_sink, default_source), with its
    client variables in ``os.environ`` (sounddevice, if imported already, lists its devices
    again) until the block ends; then stopped, the variables as they were."""
    saved = {k: os.environ.get(k) for k in server.client_env}
    os.environ.update(server.client_env)
    try:
        server.start(sinks, **start)
        if "sounddevice" in sys.modules:  # imported before the server ran: re-list devices
            server.refresh_sounddevice()
        yield server
    finally:
        server.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def espeak(text: str, path: str | os.PathLike, voice: str = "en-us", speed: int = 150,
           pitch: int = 50, rate: int = 16000, lead_in: float = 0.0,
           tail: float = 0.0) -> Path:
    """Synthesise ``text`` with espeak-ng into a mono 16-bit WAV at ``rate`` Hz."""
    path = Path(path)
    raw = path.with_suffix(".espeak.wav")
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch),
                    "-w", str(raw), text], check=True, capture_output=True)
    x, src = read_wav(raw)
    raw.unlink()
    y = resample(x[:, 0], src, rate)
    y = np.concatenate([np.zeros(int(lead_in * rate)), y, np.zeros(int(tail * rate))])
    write_wav(path, y, rate)
    return path


def tone(freq: float, seconds: float, rate: int = 16000, amp: float = 0.5) -> np.ndarray:
    """A sine tone with 5 ms ramps, float in [-1, 1]."""
    t = np.arange(int(seconds * rate)) / rate
    x = amp * np.sin(2 * np.pi * freq * t)
    r = min(len(x) // 2, int(0.005 * rate))
    if r:
        ramp = np.linspace(0, 1, r)
        x[:r] *= ramp
        x[-r:] *= ramp[::-1]
    return x
