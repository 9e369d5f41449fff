"""Where the lab keeps what it makes once and reuses (benchmark corpora and games, training
data): ``$REFEREE_CACHE``, else ``~/.cache/referee``."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$REFEREE_CACHE``, else ``~/.cache/referee`` (read each time: tests set it)."""
    return Path(os.environ.get("REFEREE_CACHE") or Path.home() / ".cache" / "referee")


def bench_dir(name: str) -> Path:
    """A benchmark's cache directory, ``bench/NAME`` under :func:`cache_root`."""
    return cache_root() / "bench" / name
