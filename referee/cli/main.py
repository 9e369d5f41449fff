"""The ``referee`` command line: one subcommand per module, wired up here."""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
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
    "bench-swoop": "referee.lab.bench.swoop",
    "bench-gops": "referee.lab.bench.gops_bench",
    "bench-reliability": "referee.lab.bench.reliability",
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
        p.set_defaults(_run=mod.run, _parser=p)
    return parser


def _unknown(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """What is wrong with ``extras``, with the closest option of ``parser`` for each."""
    known = [s for a in parser._actions for s in a.option_strings]
    parts = []
    for word in extras:
        close = difflib.get_close_matches(word.split("=")[0], known, n=1, cutoff=0.6)
        parts.append(f"{word} (did you mean {close[0]}?)" if close and word.startswith("-") else word)
    return "unrecognized arguments: " + " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        # the subcommand's own usage, not the top level's, and the option meant
        (getattr(args, "_parser", None) or parser).error(_unknown(
            getattr(args, "_parser", None) or parser, extras))
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return args._run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`referee replay --json | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
