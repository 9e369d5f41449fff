"""Running one game's phrase benchmark (``referee bench --soccer``, ``--numbers``): build
its corpus from the main corpus's voices and noises, hear every item with the game's grammar
as ``referee bench`` hears its items, keep the results beside the corpus and write the
game's own section of the report."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Callable

from referee.lab.bench import corpus
from referee.lab.bench.report import write_section
from referee.lab.cache import bench_dir


def cache_dir(name: str, version: int, seed: int) -> Path:
    """Where the ``name`` corpus of plan ``version`` and ``seed`` is kept."""
    return bench_dir(f"{name}-v{corpus.VERSION}.{version}-s{seed}")


def run(args, name: str, items: list[corpus.Item], grammar, labels: dict[str, str],
        label: str, render: Callable[[list[dict], dict], str], heading: str, cdir: Path,
        measure, progress, engine_desc, listen_for=None,
        voices: tuple[corpus.Voice, ...] = corpus.VOICES) -> int:
    """Build ``items`` in ``cdir``, hear each with ``grammar`` (``measure``; only its
    phrases of the kinds ``listen_for``, when given, as the game listens then: a set of
    kinds, or a function of the item giving them), note
    ``labels[item.id]`` under ``label`` in its record, and write ``render``'s section
    (``heading``) to ``args.out`` (default BENCHMARKS.md). ``voices``: those the items
    name (a development set's, or the benchmark's)."""
    from referee.hearing.engine import open_recogniser

    print(f"referee bench: {name} corpus {cdir} ({len(items)} items)", file=sys.stderr)
    items = corpus.build(items, cdir, args.seed, progress=progress("synthesising"),
                         voices=voices)
    recogniser = open_recogniser(args.engine, args.model, grammar)
    if listen_for is not None and not callable(listen_for):
        recogniser.listen_for(listen_for)
    t0 = time.perf_counter()
    tick = progress("recognising")
    records = []
    for k, item in enumerate(items):
        if callable(listen_for):
            recogniser.listen_for(listen_for(item))
        rec = measure(recogniser, item, cdir, args.block_ms)
        rec[label] = labels[item.id]
        records.append(rec)
        tick(k + 1, len(items))
    out = Path(args.out or "BENCHMARKS.md")
    command = f"referee bench --{name}" + "".join(
        f" --{o} {shlex.quote(str(getattr(args, o)))}"
        for o in ("engine", "split", "dev", "corpus") if getattr(args, o)) \
        + ("" if out.name == "BENCHMARKS.md" else f" --out {out}")
    # model files named from the repository, not from this machine's paths
    root = str(Path(__file__).resolve().parents[3]) + os.sep
    meta = {"command": command, "engine": engine_desc(recogniser, args).replace(root, ""),
            "elapsed": time.perf_counter() - t0,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    (cdir / "results.jsonl").write_text(
        "\n".join(json.dumps(r) for r in [{"meta": meta}] + records) + "\n")
    write_section(out, render(records, meta), heading)
    print(f"referee bench: wrote the {name} section of {out}", file=sys.stderr)
    return 0
