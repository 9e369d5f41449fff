"""Game journals on disk: one JSON Lines file per game, in the data directory.

Each line is one object, as the core encodes it (:mod:`referee.core.journal`):
this module only deals with files. Every :meth:`JournalFile.append` writes its
whole line with one ``write`` and ``os.fsync``\\ s it before returning, so an
event the game has acted on is on disk. A crash can at worst leave the last
line torn (cut short); :func:`read_journal` keeps every whole line before it
and reports the torn one, and :meth:`JournalFile.reopen` cuts it off before
appending, for ``referee resume``.

Where the journals are: ``games/<UTC time>-<game>.jsonl`` in the referee's
data directory (:func:`data_dir`), e.g.
``~/.local/share/referee/games/20261122T004500Z-stroop.jsonl``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping

from referee.core.errors import RefereeError

#: Object types that mark a game as finished (the core's ``final`` verdict).
FINISHED_TYPES = frozenset({"final"})

_NAME = re.compile(r"^(\d{8}T\d{6}Z)(?:-(\d+))?-([a-z0-9_]+)\.jsonl$")


class JournalFileError(RefereeError):
    """A journal file that cannot be used; the message names the file and line."""


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The referee's data directory: ``$REFEREE_DATA``, else
    ``$XDG_DATA_HOME/referee``, else ``~/.local/share/referee``."""
    env = os.environ if environ is None else environ
    if env.get("REFEREE_DATA"):
        return Path(env["REFEREE_DATA"]).expanduser()
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]).expanduser() / "referee"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".local" / "share" / "referee"


def games_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where game journals go: ``games/`` in :func:`data_dir`."""
    return data_dir(environ) / "games"


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _line(obj: dict) -> bytes:
    if not isinstance(obj, dict):
        raise TypeError(f"a journal line is a JSON object (dict), not {type(obj).__name__}")
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8") + b"\n"


class JournalFile:
    """A game journal open for appending. Make one with :meth:`new` (a new
    game) or :meth:`reopen` (resume a game); use as a context manager."""

    def __init__(self, path: Path, fd: int, dropped: bytes = b""):
        self.path = path
        self.dropped = dropped
        """A torn last line cut off by :meth:`reopen` (empty if none)."""
        self._fd: int | None = fd

    @classmethod
    def new(cls, game: str, folder: str | os.PathLike | None = None,
            when: datetime | None = None) -> "JournalFile":
        """Create ``<folder>/<UTC time>-<game>.jsonl`` (folder: :func:`games_dir`;
        when: now). Games started in the same second get ``-2``, ``-3``..."""
        if not re.fullmatch(r"[a-z0-9_]+", game):
            raise ValueError(f"game name must be lower-case letters, digits or _, not {game!r}")
        folder = Path(games_dir() if folder is None else folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise JournalFileError(f"cannot keep games in {folder} ({e.strerror}); set "
                                   f"REFEREE_DATA to a folder you can write") from None
        stamp = (when or datetime.now(timezone.utc)).astimezone(timezone.utc)
        stamp_text = stamp.strftime("%Y%m%dT%H%M%SZ")
        taken = {_sort_key(p) for p in folder.glob(f"{stamp_text}-*.jsonl")}
        for n in range(1, 1000):
            if (stamp_text, n) in taken:  # keeps one order among games of that second
                continue
            name = f"{stamp_text}-{game}.jsonl" if n == 1 else f"{stamp_text}-{n}-{game}.jsonl"
            path = folder / name
            try:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            except OSError as e:  # a read-only or full file system
                raise JournalFileError(f"cannot keep games in {folder} ({e.strerror}); set "
                                       f"REFEREE_DATA to a folder you can write") from None
            _fsync_dir(folder)
            return cls(path, fd)
        raise JournalFileError(f"{folder}: too many games started at {stamp_text}")

    @classmethod
    def reopen(cls, path: str | os.PathLike) -> "JournalFile":
        """Open an existing journal to append to it. A torn last line (a write
        cut short by a crash) is cut off first and kept in :attr:`dropped`."""
        path = Path(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND)
        except OSError as e:
            raise JournalFileError(f"{path}: cannot open the journal: {e.strerror}") from None
        size = os.fstat(fd).st_size
        data = os.pread(fd, size, 0)
        dropped = b""
        body = data.rstrip(b"\n")
        start = body.rfind(b"\n") + 1  # where the last line begins
        if body and not _parses(body[start:]):  # torn: cut it off
            os.ftruncate(fd, start)
            dropped = data[start:]
            os.fsync(fd)
        elif data and not data.endswith(b"\n"):  # a whole object whose newline was lost
            os.write(fd, b"\n")
            os.fsync(fd)
        return cls(path, fd, dropped)

    def append(self, obj: dict) -> None:
        """Write one object as one line, and fsync it, before returning."""
        if self._fd is None:
            raise ValueError(f"{self.path}: journal is closed")
        data = _line(obj)
        view = memoryview(data)
        at = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            while view:  # one write for a line of any sane size; loop for the rest
                n = os.write(self._fd, view)
                view = view[n:]
            os.fsync(self._fd)
        except OSError as e:  # a full disk, a file system gone read-only
            try:
                os.ftruncate(self._fd, at)  # no torn line: the journal ends with a whole one
            except OSError:
                pass
            raise JournalFileError(f"{self.path}: cannot write the journal ({e.strerror}); "
                                   "the game so far is kept: make room, then `referee "
                                   "resume`") from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "JournalFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _parses(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError):
        return False


@dataclass(frozen=True)
class JournalContents:
    """What :func:`read_journal` found."""

    path: Path
    objects: tuple[dict, ...]
    """Every whole line's object, in file order."""
    lines: tuple[int, ...]
    """The 1-based line number of each object."""
    torn: str | None = None
    """The torn last line (cut short by a crash), if any; not in ``objects``."""

    @property
    def finished(self) -> bool:
        """Whether the game ended (a line of a type in :data:`FINISHED_TYPES`)."""
        return any(o.get("type") in FINISHED_TYPES for o in self.objects)

    @property
    def game(self) -> str | None:
        """The ``game`` field of the first line, if it is a game line."""
        if self.objects and self.objects[0].get("type") == "game":
            return self.objects[0].get("game")
        return None


def read_journal(path: str | os.PathLike) -> JournalContents:
    """Read a journal. The last line may be torn (see :class:`JournalContents`);
    a bad line anywhere before it raises :class:`JournalFileError` naming it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise JournalFileError(f"{path}: cannot read the journal: {e.strerror}") from None
    raw_lines = data.split(b"\n")
    ended = raw_lines[-1] == b""  # the file ends with a newline
    if ended:
        raw_lines.pop()
    objects, numbers, torn = [], [], None
    for i, raw in enumerate(raw_lines, 1):
        last = i == len(raw_lines)
        if not raw.strip():
            if last and not ended:
                torn = ""
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
            if not isinstance(obj, dict):
                raise ValueError(f"a JSON {type(obj).__name__}, not an object")
        except (UnicodeDecodeError, ValueError) as e:
            if last:  # cut short mid-write, or (without fsync) left as garbage by a crash
                torn = raw.decode("utf-8", errors="replace")
                break
            raise JournalFileError(f"{path}: line {i} is not a JSON object ({e})") from None
        objects.append(obj)
        numbers.append(i)
    return JournalContents(path, tuple(objects), tuple(numbers), torn)


def _sort_key(path: Path) -> tuple:
    m = _NAME.match(path.name)
    return (m.group(1), int(m.group(2) or 1)) if m else ("", 0)


def list_games(folder: str | os.PathLike | None = None) -> list[Path]:
    """The journals in ``folder`` (default :func:`games_dir`), oldest first."""
    folder = Path(games_dir() if folder is None else folder)
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir() if _NAME.match(p.name)), key=_sort_key)


def latest_unfinished(folder: str | os.PathLike | None = None,
                      game: str | None = None) -> Path | None:
    """The most recently started journal (of ``game``, if given) that has no
    final line and something after its game line: the game ``referee resume`` continues.
    ``None`` if there is none. Journals that cannot be read are passed over."""
    for path in reversed(list_games(folder)):
        if game is not None and _NAME.match(path.name).group(3) != game:
            continue
        try:
            contents = read_journal(path)
        except JournalFileError:
            continue
        if len(contents.objects) > 1 and not contents.finished:   # a game line alone is no game
            return path
    return None
