"""The ``referee`` command line: one subcommand per module, wired up here."""

from __future__ import annotations

import argparse
import importlib
import sys

from referee import __version__

#: Subcommand name -> module that provides ``add_arguments(parser)`` and
#: ``run(args) -> int``, plus a module docstring whose first line is the help.
COMMANDS = {
    "play": "referee.cli.play",
    "resume": "referee.cli.resume",
    "replay": "referee.cli.replay",
    "transcribe": "referee.cli.transcribe",
    "models": "referee.cli.models",
    "listen": "referee.cli.listen",
    "say": "referee.cli.say",
    "bench": "referee.lab.bench.run",
    "bench-latency": "referee.lab.bench.verdict_latency",
    "bench-gops": "referee.lab.bench.gops_bench",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="An offline, voice-driven referee for card games played with real cards.",
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, modname in COMMANDS.items():
        mod = importlib.import_module(modname)
        doc = (mod.__doc__ or "").strip()
        p = sub.add_parser(
            name,
            help=doc.splitlines()[0] if doc else None,
            description=getattr(mod, "DESCRIPTION", doc),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return args._run(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
