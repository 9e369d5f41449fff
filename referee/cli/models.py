"""Download the small English Vosk model into models/ (needs internet once)."""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import IO

from referee.hearing.engine import MODELS_DIR

MODEL = "vosk-model-small-en-us-0.15"
URL = f"https://alphacephei.com/vosk/models/{MODEL}.zip"
SHA256 = "30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    d = sub.add_parser("download", help=f"fetch {MODEL} (about 40 MB) and check its checksum")
    d.add_argument("--dest", default=str(MODELS_DIR), help="where to unpack (default models/)")
    d.add_argument("--url", default=URL, help=argparse.SUPPRESS)
    d.add_argument("--sha256", default=SHA256, help=argparse.SUPPRESS)
    d.add_argument("--timeout", type=float, default=30.0, help=argparse.SUPPRESS)


def _bar(done: int, total: int, err: IO[str]) -> None:
    if total > 0:
        frac = done / total
        fill = int(frac * 30)
        err.write(f"\r  [{'#' * fill}{'.' * (30 - fill)}] {frac:6.1%} {done / 1e6:6.1f} MB")
    else:
        err.write(f"\r  {done / 1e6:6.1f} MB")
    err.flush()


def download(url: str, dest: Path, sha256: str, timeout: float = 30.0,
             err: IO[str] | None = None) -> Path:
    """Fetch ``url`` (a zip of one model directory), verify it and unpack it
    under ``dest``. Raises RuntimeError with a clear message."""
    err = err or sys.stderr
    dest.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(suffix=".zip", dir=dest, delete=False) as tmp:
        tmp_path = Path(tmp.name)
        try:
            try:
                resp = urllib.request.urlopen(url, timeout=timeout)
            except (urllib.error.URLError, OSError) as e:
                reason = getattr(e, "reason", e)
                raise RuntimeError(
                    f"cannot download {url}: {reason}. This needs a connection to the "
                    "internet; on an offline machine, copy an unpacked Vosk model into "
                    f"{dest} or pass --model DIR.") from None
            total = int(resp.headers.get("Content-Length") or 0)
            done = 0
            err.write(f"Downloading {url}\n")
            with resp:
                while True:
                    chunk = resp.read(1 << 16)
                    if not chunk:
                        break
                    tmp.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    _bar(done, total, err)
            err.write("\n")
            tmp.close()
            if sha256 and digest.hexdigest() != sha256:
                raise RuntimeError(f"checksum mismatch for {url}: got {digest.hexdigest()}, "
                                   f"expected {sha256}; the file was not kept")
            with zipfile.ZipFile(tmp_path) as z:
                top = {n.split("/")[0] for n in z.namelist() if n.strip("/")}
                z.extractall(dest)
        except zipfile.BadZipFile:
            raise RuntimeError(f"{url}: not a zip archive") from None
        finally:
            tmp_path.unlink(missing_ok=True)
    model = dest / sorted(top)[0] if len(top) == 1 else dest
    return model


def run(args: argparse.Namespace, err: IO[str] | None = None) -> int:
    err = err or sys.stderr
    try:
        path = download(args.url, Path(args.dest), args.sha256, args.timeout, err)
    except RuntimeError as e:
        print(f"referee models download: {e}", file=err)
        return 1
    print(f"Vosk model ready in {path}", file=err)
    return 0


